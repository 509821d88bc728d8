/**
 * The first start's generated Service Admin password stands apart from the log: the real server,
 * its output a pipe, writes it in exactly one line (a JSON line at level warn, whatever
 * LOG_LEVEL) naming the CLI command that changes it; on a terminal it is a framed block on stderr
 * and no log line (platform/notice.ts, with a terminal and a logger that collect what they get).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { adminPasswordIgnoredNotice, firstAdminNotice } from '../../src/kernel/seed.js';
import { createLogger } from '../../src/platform/logger.js';
import { showNotice } from '../../src/platform/notice.js';
import { killServers, startServer, stopServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-first-admin-'));

afterEach(killServers);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A logger at `level` whose JSON lines are collected, and a terminal (TTY or not) that collects its text. */
function capture(level: string, isTTY: boolean) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  let shown = '';
  const terminal = {
    isTTY,
    write: (text: string) => {
      shown += text;
    },
  };
  return { log: createLogger(level, destination), lines, terminal, shown: () => shown };
}

describe('the first Service Admin notice', () => {
  it('the server writes the generated password in one warn line with the set-password command', async () => {
    const server = await startServer({ DATABASE_URL: `file:${join(dir, 'fresh.db')}` }, { as: 'image' });
    const output = server.output().split('\n');
    const notice = output.filter((line) => line.includes('"password"'));
    expect(notice, server.output()).toHaveLength(1);
    const line = JSON.parse(notice[0] as string) as { level: number; msg: string; login: string; password: string; change: string };
    expect(line).toMatchObject({
      level: 40,
      login: 'admin',
      change: "npx portcullis user set-password --login admin --password '<new password>'",
    });
    expect(line.msg).toMatch(/^created the first Service Admin "admin" with a generated password/);
    expect(line.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(output.filter((l) => l.includes(line.password))).toHaveLength(1);
    const auth = `Basic ${Buffer.from(`admin:${line.password}`).toString('base64')}`;
    expect((await fetch(`http://127.0.0.1:${server.port}/api/user`, { headers: { authorization: auth } })).status).toBe(200);
    expect(await stopServer(server)).toBe(0);
  }, 120_000);

  it('off a terminal: one warn log line, even at LOG_LEVEL error', () => {
    const { log, lines, terminal, shown } = capture('error', false);
    showNotice(firstAdminNotice('root', 'the-generated-secret'), log, terminal);
    expect(shown()).toBe('');
    expect(lines).toEqual([expect.objectContaining({ level: 40, login: 'root', password: 'the-generated-secret' })]);
  });

  it('on a terminal: a framed block on stderr with the password and the command, no log line', () => {
    const { log, lines, terminal, shown } = capture('info', true);
    showNotice(firstAdminNotice('root', 'the-generated-secret'), log, terminal);
    expect(lines).toEqual([]);
    const block = shown().split('\n');
    expect(block.filter((l) => /^={20,}$/.test(l))).toHaveLength(2);
    expect(block).toContain('  password  the-generated-secret');
    expect(block).toContain("  change    npx portcullis user set-password --login root --password '<new password>'");

    const ignored = capture('info', true);
    showNotice(adminPasswordIgnoredNotice('root'), ignored.log, ignored.terminal);
    expect(ignored.shown()).toContain('ADMIN_PASSWORD is ignored');
    expect(ignored.lines).toEqual([]);
  });
});

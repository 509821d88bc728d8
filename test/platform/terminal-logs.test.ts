/**
 * Logs read by people: when stdout is a terminal the logger writes one human line per entry
 * (time, level, component, message, fields), through pino-pretty; anywhere else it stays JSON.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type MaybeTerminal, terminalDestination } from '../../src/platform/logger.js';

/** A stand-in for stdout that collects what is written; `isTTY` as given. */
function stdout(isTTY: boolean): MaybeTerminal & { text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk);
      done();
    },
  }) as Writable & { isTTY?: boolean; text: () => string };
  stream.isTTY = isTTY;
  // Without the colours' escape sequences (ESC [ ... m).
  const esc = String.fromCharCode(27);
  stream.text = () =>
    written
      .split(esc)
      .map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, '')))
      .join('');
  return stream;
}

describe('logs on a terminal', () => {
  it('are one readable line per entry: time, level, component, message and fields, without the constant fields', async () => {
    const terminal = stdout(true);
    const log = createLogger('info', terminalDestination(terminal));
    log.child({ component: 'http' }).info({ port: 3000 }, 'portcullis listening');
    log.warn('ADMIN_PASSWORD is ignored');
    await expect.poll(() => terminal.text().split('\n').length).toBeGreaterThanOrEqual(3);
    const [listening, warning] = terminal.text().split('\n');
    expect(listening).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \(http\) portcullis listening \{"port":3000\}$/);
    expect(warning).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: ADMIN_PASSWORD is ignored$/);
    expect(terminal.text()).not.toMatch(/"service"|"pid"|"hostname"|"level"/);
  });

  it('stay JSON when stdout is a pipe or a file', () => {
    expect(terminalDestination(stdout(false))).toBeUndefined();
  });
});

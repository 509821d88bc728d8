/**
 * The log destination's buffer is bounded (src/platform/logger.ts LOG_BUFFER_MAX_BYTES): when
 * stdout is a pipe nobody reads, lines past the bound are dropped and counted instead of held in
 * memory, reported once on stderr, and the service keeps logging without error.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger, LOG_BUFFER_MAX_BYTES, logDestination } from '../../src/platform/logger.js';

const reader = spawn('sleep', ['120'], { stdio: ['pipe', 'ignore', 'ignore'] });
afterAll(() => {
  reader.kill();
});

describe('a log pipe nobody reads', () => {
  it('holds at most LOG_BUFFER_MAX_BYTES of lines and drops the rest', () => {
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const destination = logDestination(fd);
    let dropped = 0;
    destination.on('drop', () => {
      dropped++;
    });
    const log = createLogger('info', destination);
    const pad = 'x'.repeat(1000);
    // About three times the bound, in one synchronous run: nothing can be written meanwhile
    // beyond what the pipe itself takes (64 KiB).
    const lines = Math.ceil((3 * LOG_BUFFER_MAX_BYTES) / 1100);
    // The drop report goes to stderr: collected here, not printed among the test run's output.
    const reports: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      reports.push(String(text));
      return true;
    });
    try {
      for (let i = 0; i < lines; i++) log.info({ i, pad }, 'a request line');
    } finally {
      stderr.mockRestore();
    }
    expect(dropped).toBeGreaterThan(lines / 2);
    expect(reports.map((line) => JSON.parse(line) as { level: number; msg: string })).toEqual([
      expect.objectContaining({ level: 40, dropped: 1, msg: 'log lines dropped: stdout is slower than the logs' }),
    ]);
    const buffered = (destination as unknown as { _len: number })._len;
    expect(buffered).toBeLessThanOrEqual(LOG_BUFFER_MAX_BYTES);
    // Stop writing before the reader goes: its pipe closes with lines still buffered.
    destination.on('error', () => undefined);
    (destination as unknown as { destroy(): void }).destroy();
  });
});

/**
 * Start notices an operator must not miss among the log lines (the first Service Admin's
 * generated password, an ignored ADMIN_PASSWORD). On a terminal (stderr is a TTY) a notice is a
 * framed block on stderr, apart from the JSON lines on stdout; elsewhere (a pipe, a file, a
 * container's log) it is one log line at level warn, written whatever LOG_LEVEL says (a child
 * logger at `warn`): there stdout is the only place an operator reads, and the line goes through
 * the logger's own destination so it is never interleaved with a batch of other lines.
 */
import type { Logger } from './logger.js';

/** What a notice says: one sentence, then named values (a login, a password, a command). */
export interface Notice {
  /** The sentence: the block's first line, the JSON line's `msg`. */
  msg: string;
  /** The values: the block's aligned rows, the JSON line's fields. */
  fields: Record<string, string>;
}

/** Where a notice goes: a stream that knows whether it is a terminal (process.stderr). */
export interface NoticeTerminal {
  isTTY?: boolean;
  write: (text: string) => unknown;
}

/** The framed block shown on a terminal: the sentence, then `name  value` rows. */
export function noticeBlock(notice: Notice): string {
  const names = Object.keys(notice.fields);
  const width = Math.max(0, ...names.map((name) => name.length));
  const rows = names.map((name) => `  ${name.padEnd(width)}  ${notice.fields[name]}`);
  const rule = '='.repeat(72);
  return `\n${rule}\n${notice.msg}\n\n${rows.join('\n')}\n${rule}\n\n`;
}

/**
 * Shows `notice`: the block on `terminal` when it is a TTY, else one warn line of `log` that
 * LOG_LEVEL does not filter (module comment).
 */
export function showNotice(notice: Notice, log: Logger, terminal: NoticeTerminal = process.stderr): void {
  if (terminal.isTTY) terminal.write(noticeBlock(notice));
  else log.child({}, { level: 'warn' }).warn(notice.fields, notice.msg);
}

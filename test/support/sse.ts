/**
 * A server-sent events client for tests, as an EventSource behaves (WHATWG HTML, "Server-sent
 * events", the event stream interpretation): lines `field: value`, comments (`:`) ignored, `data`
 * lines joined, an event dispatched at a blank line when it has data, `id` setting the last event
 * id (kept across events and connections), and a reconnection sending it as `Last-Event-ID`.
 * `connect` opens (again) with whatever `open` sends: a real HTTP `fetch` or `app.request`.
 */

/** One dispatched event: its type (`message` when none was named), data and the last event id then. */
export interface SseEvent {
  type: string;
  data: string;
  lastEventId: string;
}

/** Opens one connection; `headers` carry Last-Event-ID on a reconnection. */
export type SseOpen = (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;

export class SseClient {
  /** The last event id seen (sent back on reconnection); '' before any. */
  lastEventId = '';
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private controller: AbortController | undefined;
  private readonly decoder = new TextDecoder();
  private text = '';
  private readonly ready: SseEvent[] = [];
  private type = '';
  private data: string[] = [];

  constructor(private readonly open: SseOpen) {}

  /** Opens a connection (closing the current one), with Last-Event-ID when an id was seen; answers the response. */
  async connect(): Promise<Response> {
    this.close();
    this.controller = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastEventId !== '') headers['last-event-id'] = this.lastEventId;
    const res = await this.open(headers, this.controller.signal);
    this.reader = res.body?.getReader();
    this.text = '';
    this.ready.length = 0;
    this.type = '';
    this.data = [];
    return res;
  }

  /** The next event of the connection; undefined when the server ended it. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const event = this.ready.shift();
      if (event) return event;
      if (!this.reader) return undefined;
      const { value, done } = await this.reader.read();
      if (done) {
        this.reader = undefined;
        return undefined;
      }
      this.feed(this.decoder.decode(value, { stream: true }));
    }
  }

  /** Closes the connection, as a client that goes away. */
  close(): void {
    this.controller?.abort();
    this.controller = undefined;
    this.reader = undefined;
  }

  private feed(chunk: string): void {
    this.text += chunk;
    for (let end = this.text.search(/\r\n|\r|\n/); end !== -1; end = this.text.search(/\r\n|\r|\n/)) {
      const line = this.text.slice(0, end);
      this.text = this.text.slice(end + (this.text.startsWith('\r\n', end) ? 2 : 1));
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0)
        this.ready.push({ type: this.type || 'message', data: this.data.join('\n'), lastEventId: this.lastEventId });
      this.type = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
  }
}

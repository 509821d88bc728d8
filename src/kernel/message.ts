/** A `{message}` success body (service-interface.md "Message response"), on both doors. */
export interface Message {
  message: string;
}

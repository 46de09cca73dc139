/** One HTTP/1.1 request as the transport hands it to the connection layer. */
export interface WireRequest {
  origin: string;
  /** Path and query string. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  /** Aborts the request (the transport's per-attempt timeout, or the client's signal). */
  signal: AbortSignal;
  /** Backstop for the headers and the body; the transport's own timer comes first. */
  timeoutMs: number;
}

export interface WireResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * The connections under the transport: undici's pool for the daemon and the long commands
 * (undiciWire.ts), or one node:http connection per request for a command that asks once
 * (nodeHttpWire.ts). Failures reject with the error as it came (the transport maps its code).
 */
export interface Wire {
  request(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { monotonicMs } from '../../domain/monotonicMs.js';

/** What a worker started by BlockingWorker gets as its workerData, besides the caller's own data. */
export interface BlockingWorkerData {
  /** Where calls arrive ({ seq, request }) and answers go back. */
  port: MessagePort;
  /** Int32Array over a SharedArrayBuffer: slot 0 holds the `seq` of the last call answered. */
  signal: Int32Array;
}

/** One call as the worker receives it. */
export interface NumberedCall<Request> {
  seq: number;
  request: Request;
}

/**
 * A worker thread the calling thread calls synchronously: call() posts one request and blocks
 * (Atomics.wait) until the worker posted its answer. The worker answers each call by posting the
 * answer, then storing the call's `seq` in `signal[0]`, then notifying.
 *
 * The number, not a flag, is what the caller waits for: the notify of an answer may come late (the
 * worker thread descheduled between its store and its notify, while the caller, which saw the
 * store, read that answer and is already waiting for the next one). A flag reset for each call
 * took that late wake-up for the next answer: the call found no answer, and every later call read
 * the answer of the one before it.
 */
export class BlockingWorker<Request, Answer> {
  readonly #thread: Worker;
  readonly #port: MessagePort;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  #seq = 0;

  /** Starts the worker at `url` with workerData `{ ...data, port, signal }`. */
  constructor(url: URL, data: object) {
    const { port1, port2 } = new MessageChannel();
    const workerData: BlockingWorkerData = { ...data, port: port2, signal: this.#signal };
    this.#thread = new Worker(url, { workerData, transferList: [port2] });
    this.#thread.unref();
    port1.unref();
    this.#port = port1;
  }

  /** Posts `request` and waits for its answer; undefined when none came within `timeoutMs`. */
  call(request: Request, timeoutMs: number): Answer | undefined {
    const seq = (this.#seq = this.#seq === 0x7fffffff ? 1 : this.#seq + 1);
    const call: NumberedCall<Request> = { seq, request };
    this.#port.postMessage(call);
    const deadline = monotonicMs() + timeoutMs;
    for (;;) {
      const answered = Atomics.load(this.#signal, 0);
      if (answered === seq) break;
      const left = deadline - monotonicMs();
      if (left <= 0) return undefined;
      // Woken while the number is still the previous call's: a late notify. Wait on.
      Atomics.wait(this.#signal, 0, answered, left);
    }
    // The worker posts the answer before it stores the number: it is in the port.
    const answer = receiveMessageOnPort(this.#port);
    if (!answer) throw new Error(`the worker thread stored the number of call ${seq} without its answer`);
    return answer.message as Answer;
  }

  stop(): void {
    void this.#thread.terminate();
    this.#port.close();
  }
}

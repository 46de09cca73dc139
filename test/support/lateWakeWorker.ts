// A worker thread for BlockingWorker.test.ts (only node: imports: Node runs it by stripping its
// types). It answers each call with its request, by BlockingWorker's protocol, as the PostgreSQL
// store's worker does; but while the caller waits for the second answer, it first wakes it without
// one: what the notify of the first answer does when this thread was descheduled between storing
// the first call's number and notifying, and the caller, which saw the number, read that answer
// and posted the second call meanwhile.
import { workerData, type MessagePort } from 'node:worker_threads';

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
let calls = 0;

function answer(seq: number, request: unknown): void {
  port.postMessage({ answered: request });
  Atomics.store(signal, 0, seq);
  Atomics.notify(signal, 0);
}

port.on('message', ({ seq, request }: { seq: number; request: unknown }) => {
  calls += 1;
  if (calls !== 2) return answer(seq, request);
  // notify() says how many it woke: none until the caller waits for this call's answer.
  const wakeWithoutAnswer = (): void => {
    if (Atomics.notify(signal, 0) === 0) setTimeout(wakeWithoutAnswer, 1);
    // The answer comes well after the wake-up: a caller that takes the wake-up for it finds none.
    else setTimeout(() => answer(seq, request), 200);
  };
  wakeWithoutAnswer();
});

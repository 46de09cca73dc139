import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/**
 * A TCP proxy to a local port, on a thread of its own (a test that calls the synchronous store
 * blocks its own thread, which could not forward anything meanwhile). cut() drops every
 * connection and then accepts new ones without ever answering: a database whose network is gone.
 * restore() forwards again.
 */
export interface TcpGate {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

const PROXY = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
let open = true;
const sockets = new Set();
const track = (socket) => {
  sockets.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => sockets.delete(socket));
};
const dropAll = () => { for (const socket of sockets) socket.destroy(); };
const server = net.createServer((socket) => {
  track(socket);
  if (!open) return;
  const upstream = net.connect(workerData.target, '127.0.0.1');
  track(upstream);
  socket.pipe(upstream).pipe(socket);
  socket.on('close', () => upstream.destroy());
  upstream.on('close', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (command) => {
  if (command === 'cut') { open = false; dropAll(); }
  if (command === 'restore') { open = true; dropAll(); }
  if (command === 'close') { dropAll(); server.close(); }
  parentPort.postMessage({ done: command });
});
`;

export async function startTcpGate(target: number): Promise<TcpGate> {
  const worker = new Worker(PROXY, { eval: true, workerData: { target } });
  const [{ port }] = (await once(worker, 'message')) as [{ port: number }];
  const send = async (command: string): Promise<void> => {
    worker.postMessage(command);
    await once(worker, 'message');
  };
  return {
    port,
    cut: () => send('cut'),
    restore: () => send('restore'),
    async close() {
      await send('close');
      await worker.terminate();
    },
  };
}

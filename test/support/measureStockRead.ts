/**
 * Child process of fileAdapter.memory.test.ts (run with --expose-gc): reads DIR/stock.csv through
 * the file adapter and prints, as one JSON line, how many rows it read and the memory the read
 * holds on to: heap and external memory after a forced collection, sampled every 128k rows. That
 * is what the adapter retains, free of the garbage a loaded machine has not collected yet and of
 * the test runner's own memory, which is what made an RSS measurement flaky.
 */
import { FileErpAdapter } from '../../src/erp/file/FileErpAdapter.js';
import { silentLogger } from '../../src/logger.js';
import { fileConfig } from './writeDropFolder.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function retainedBytes(): number {
  gc!();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

const adapter = new FileErpAdapter(fileConfig(process.argv[2]!), silentLogger());
const baseline = retainedBytes();
const rssBefore = process.memoryUsage().rss;
let peak = baseline;
let rssPeak = rssBefore;
let records = 0;
let last = '';
const started = performance.now();
for await (const row of adapter.stock()) {
  if (!row.ok) throw new Error(`unexpected reject: ${row.reason}`);
  records++;
  last = row.record.sku;
  if ((records & 0x1ffff) === 0) {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    peak = Math.max(peak, retainedBytes());
  }
}
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ records, last, baseline, peak, rssBefore, rssPeak, seconds })}\n`);

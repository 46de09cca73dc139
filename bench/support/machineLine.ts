import { cpus, totalmem } from 'node:os';

/** The "Machine: … Date: …" sentence every recorded section starts with. */
export function machineLine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return (
    `Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}. ` +
    `Date: ${new Date().toISOString().slice(0, 10)}.`
  );
}

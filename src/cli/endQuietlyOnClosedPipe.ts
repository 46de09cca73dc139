let quietPipe = false;

/**
 * Output piped into a reader that stops early (`| head`) ends the command quietly, as Unix tools
 * do, instead of an EPIPE stack trace.
 */
export function endQuietlyOnClosedPipe(): void {
  if (quietPipe) return;
  quietPipe = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

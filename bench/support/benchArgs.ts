const args = process.argv.slice(2);

/** `--name N` on the command line, or the fallback; anything but a number >= 0 ends the bench (exit 64). */
export function numberArg(name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`--${name} needs a number >= 0, got '${args[i + 1] ?? ''}'\n`);
    process.exit(64);
  }
  return value;
}

/** `--name` given on the command line. */
export function hasFlag(name: string): boolean {
  return args.includes(`--${name}`);
}

/** `--name VALUE` on the command line, or undefined. */
export function stringArg(name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : args[i + 1];
}

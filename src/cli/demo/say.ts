/** The demo's narration on stdout: a step heading, or (`detail`) an indented line under it. */
export function say(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

export function detail(text: string): void {
  process.stdout.write(`   ${text}\n`);
}

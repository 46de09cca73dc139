import type { Command } from 'commander';

// Placeholder: filled in by the issue that owns this command.
export function registerSandboxCommand(_program: Command): void {}

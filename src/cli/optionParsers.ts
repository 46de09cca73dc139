import { InvalidArgumentError } from 'commander';
import { isPipelineName, PIPELINE_ORDER } from '../domain/pipelineNames.js';

// The parsers of option values: a bad value is a usage error naming the option, before any command
// code is loaded.

/** A whole number from `min` to `max`. */
export const integer =
  (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    return Number(value);
  };

/** One of `values`. */
export const oneOf =
  (values: string[]) =>
  (value: string): string => {
    if (!values.includes(value)) throw new InvalidArgumentError(`expected one of: ${values.join(', ')}`);
    return value;
  };

/** A positive whole number for --limit, or a usage error naming the option. */
export function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

/** A positive number of seconds. */
export function positiveSeconds(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError('SECONDS must be a positive number');
  return Number(value);
}

/** `--only a,b`: known pipeline names, at least one (an empty list would run every pipeline). */
export function pipelineList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = PIPELINE_ORDER.join(', ');
  if (names.length === 0) throw new InvalidArgumentError(`name at least one pipeline: ${known}`);
  const unknown = names.filter((name) => !isPipelineName(name));
  if (unknown.length)
    throw new InvalidArgumentError(`unknown pipeline(s) ${unknown.join(', ')}; known: ${known}`);
  return names;
}

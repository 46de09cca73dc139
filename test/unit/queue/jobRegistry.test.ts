import { describe, expect, it } from 'vitest';
import type { JobKind } from '../../../src/queue/jobKind.js';
import { JobKindMissingError } from '../../../src/queue/JobKindMissingError.js';
import {
  checkRegistry,
  JOB_REGISTRY,
  jobOptionsOf,
  type JobRegistry,
} from '../../../src/queue/jobRegistry.js';
import { JOB_NAMES, RUN_JOB_NAMES, pushJobName } from '../../../src/queue/jobTypes.js';

function refusal(registry: JobRegistry): JobKindMissingError {
  try {
    checkRegistry(registry);
  } catch (error) {
    if (error instanceof JobKindMissingError) return error;
    throw error;
  }
  throw new Error('checkRegistry accepted the registry');
}

describe('the job registry', () => {
  it('has exactly one kind per job name, each on the queue it is listed under', () => {
    expect(() => checkRegistry(JOB_REGISTRY)).not.toThrow();
    const names = Object.values(JOB_REGISTRY).flatMap((kinds) => kinds.map((kind) => kind.name));
    expect([...names].sort()).toEqual([...JOB_NAMES].sort());
    // Every pipeline's run job is a kind on the runs queue; push jobs wait for nothing when a sibling fails.
    const runs = new Set(JOB_REGISTRY.runs.map((kind) => kind.name));
    expect(Object.values(RUN_JOB_NAMES).filter((name) => !runs.has(name))).toEqual([]);
    expect(jobOptionsOf(pushJobName('stock'))).toEqual({ ignoreDependencyOnFailure: true });
    expect(jobOptionsOf('catalog')).toEqual({});
  });

  it('refuses a registry where a job name has no kind, with a stable code naming the job', () => {
    const error = refusal({ ...JOB_REGISTRY, imports: [] });
    expect(error.code).toBe('job_unhandled');
    expect(error.message).toContain('"order-import"');
    expect(error.details).toMatchObject({ job: 'order-import' });
  });

  it('refuses a kind listed under another queue than its own, and a name with two kinds', () => {
    const [stockPush] = JOB_REGISTRY.pushes;
    const misplaced: JobKind<unknown> = { ...stockPush!, queue: 'imports' };
    expect(refusal({ ...JOB_REGISTRY, pushes: [misplaced, JOB_REGISTRY.pushes[1]!] }).message).toMatch(
      /"stock-push" on the pushes queue: its kind is declared for the imports queue/,
    );
    expect(refusal({ ...JOB_REGISTRY, pushes: [...JOB_REGISTRY.pushes, stockPush!] }).message).toMatch(
      /"stock-push" on the pushes queue: a second kind of it/,
    );
  });
});

import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * Which job owns the import of each platform order, in one Redis hash beside the imports queue
 * (field: the order id, value: `<jobId>|<claimed at, ms>`). An import job carries many orders, so
 * BullMQ's refusal of a second job id no longer keeps two jobs off one order: a claim does. A claim
 * holds while its job is waiting, delayed or active; once the job is completed or failed, the order
 * may be claimed again (a poll that finds it still queued in the store). A claim whose job is not
 * in Redis holds for CLAIM_GRACE_MS: the gap between claiming and adding the job (after it, a job
 * removed by hand, or lost with Redis's data, no longer holds its orders).
 */
export const CLAIM_GRACE_MS = 60_000;

/** What became of one order of a claim. */
export type ClaimResult =
  /** Another live job owns it: not enqueued again. */
  | 'taken'
  /** Now the given owner's. */
  | 'claimed'
  /**
   * Its own import job (`single`) is kept finished (failed, or completed while the order is still
   * to import): claimed for that job, to be retried under its id (BullMQ would refuse a new one).
   */
  | 'retry-single';

export interface ClaimRequest {
  orderId: number;
  /** The job that is to import it. */
  owner: string;
  /** The id of the order's own import job (`order-<id>`), whose kept failure is retried rather than left failed. */
  single: string;
}

// KEYS: claims hash, completed set, failed set. ARGV: job key prefix, grace ms, then triples
// (order id, owner job id, single job id). Returns 0 taken, 1 claimed, 2 claimed for its finished single job.
const CLAIM_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local grace = tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV, 3 do
  local id, owner, single = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local live = false
  local cur = redis.call('HGET', KEYS[1], id)
  if cur then
    local sep = string.find(cur, '|', 1, true)
    local job = string.sub(cur, 1, sep - 1)
    local at = tonumber(string.sub(cur, sep + 1))
    if redis.call('EXISTS', ARGV[1] .. job) == 1 then
      live = not redis.call('ZSCORE', KEYS[2], job) and not redis.call('ZSCORE', KEYS[3], job)
    else
      live = now - at < grace
    end
  end
  if live then
    out[#out + 1] = 0
  elseif redis.call('ZSCORE', KEYS[3], single) or redis.call('ZSCORE', KEYS[2], single) then
    redis.call('HSET', KEYS[1], id, single .. '|' .. now)
    out[#out + 1] = 2
  else
    redis.call('HSET', KEYS[1], id, owner .. '|' .. now)
    out[#out + 1] = 1
  end
end
return out
`;

/** Triples claimed per script call: Redis runs nothing else meanwhile, so keep each call short. */
const CLAIMS_PER_CALL = 2_000;

export class ImportClaims {
  readonly #hash: string;

  constructor(
    private readonly redis: Redis,
    private readonly queue: Queue,
  ) {
    this.#hash = queue.toKey('claims');
  }

  /** Claims each order for its owner unless a live job owns it; one result per request, in order. */
  async claim(requests: readonly ClaimRequest[]): Promise<ClaimResult[]> {
    const out: ClaimResult[] = [];
    for (let start = 0; start < requests.length; start += CLAIMS_PER_CALL) {
      const part = requests.slice(start, start + CLAIMS_PER_CALL);
      const args = part.flatMap((r) => [String(r.orderId), r.owner, r.single]);
      const codes = (await this.redis.eval(
        CLAIM_SCRIPT,
        3,
        this.#hash,
        this.queue.keys.completed!,
        this.queue.keys.failed!,
        this.queue.toKey(''),
        String(CLAIM_GRACE_MS),
        ...args,
      )) as number[];
      for (const code of codes) out.push(code === 0 ? 'taken' : code === 2 ? 'retry-single' : 'claimed');
    }
    return out;
  }

  /** Hands orders to other jobs (a batch's failed orders to their own import jobs). */
  async transfer(owners: ReadonlyMap<number, string>): Promise<void> {
    if (owners.size === 0) return;
    const now = Date.now();
    const fields = [...owners].flatMap(([orderId, owner]) => [String(orderId), `${owner}|${now}`]);
    await this.redis.hset(this.#hash, ...fields);
  }

  /** The orders are decided in the store: their claims are no longer needed. */
  async release(orderIds: readonly number[]): Promise<void> {
    if (orderIds.length === 0) return;
    await this.redis.hdel(this.#hash, ...orderIds.map(String));
  }

  /** The job owning an order's import (a view of it), or null. */
  async ownerOf(orderId: number): Promise<string | null> {
    const value = await this.redis.hget(this.#hash, String(orderId));
    return value ? value.slice(0, value.lastIndexOf('|')) : null;
  }
}

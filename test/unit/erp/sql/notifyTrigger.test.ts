import { describe, expect, it } from 'vitest';
import { notifyTriggerSql } from '../../../../src/erp/sql/notifyTrigger.js';
import { sqlConfigSlice } from '../../../../src/erp/sql/sqlConfigSchema.js';

describe('erp.listen and the notify trigger', () => {
  it('prints a statement-level trigger naming the change on the channel, the table quoted part by part', () => {
    const sql = notifyTriggerSql({ table: 'erp.Stock "levels"', change: 'orderEvents', channel: 'erp_sync' });
    expect(sql).toContain(`PERFORM pg_notify('erp_sync', 'orderEvents');`);
    expect(sql).toContain('ON "erp"."Stock ""levels"""');
    expect(sql).toContain('FOR EACH STATEMENT EXECUTE FUNCTION erp_sync_notify_orderevents()');
    expect(sql).toMatch(/AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE/);
  });

  const base = { type: 'sql', connection: { database: 'erp' } };

  it('defaults the channel and debounce, and refuses LISTEN on a server that has none', () => {
    const pg = sqlConfigSlice.schema.parse({ ...base, client: 'pg', listen: {} });
    expect(pg.listen).toEqual({ channel: 'erp_sync', debounceMs: 200 });
    const mysql = sqlConfigSlice.schema.safeParse({ ...base, client: 'mysql', listen: {} });
    expect(mysql.success).toBe(false);
    expect(mysql.error?.issues[0]?.path).toEqual(['listen']);
    expect(mysql.error?.issues[0]?.message).toMatch(/needs client pg/);
    const channel = sqlConfigSlice.schema.safeParse({
      ...base,
      client: 'pg',
      listen: { channel: 'a; drop' },
    });
    expect(channel.success).toBe(false);
  });
});

import { accountConsolePrefix } from './accountPaths.js';
import { html } from './html.js';
import { pageHead } from './pageHead.js';

/** `/` of a process serving several accounts: each account, ready or why not, and a link to its console. */
export async function accountsIndex(
  accounts: readonly { name: string; readiness: () => Promise<{ ready: boolean; reasons: string[] }> }[],
): Promise<string> {
  const rows = await Promise.all(
    accounts.map(async (account) => {
      const state = await account
        .readiness()
        .catch(() => ({ ready: false, reasons: ['the readiness check failed'] }));
      const prefix = accountConsolePrefix(account.name);
      return html`<tr>
        <td><a href="${prefix}/">${account.name}</a></td>
        <td>
          ${state.ready ? html`<span class="badge ok">ready</span>` : html`<span class="badge warn">not ready</span>`}
        </td>
        <td>${state.reasons.join('; ')}</td>
        <td><a href="${prefix}/rejects">rejects</a> · <a href="${prefix}/orders">parked orders</a></td>
      </tr>`;
    }),
  );
  const first = accountConsolePrefix(accounts[0]?.name ?? '');
  return html`<!doctype html>
    <html lang="en">
      ${pageHead('Accounts', first, false)}
      <body>
        <header class="top">
          <a class="brand" href="/">erp-sync</a>
          <nav><a href="/queues">Queues</a> <a href="/metrics">Metrics</a></nav>
        </header>
        <main>
          <h1>Accounts</h1>
          <table>
            <thead>
              <tr>
                <th>account</th>
                <th>readiness</th>
                <th>reasons</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>
        </main>
      </body>
    </html>`.text;
}

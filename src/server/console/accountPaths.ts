/**
 * The console of one account among several is served under `/accounts/NAME`: the console draws
 * paths from the root (`/rejects`, `/explain/sku?...`, its forms' `back`), and this puts the
 * account's prefix in front of them as the page leaves the server, so the views stay the same for
 * one account and many. `/metrics` is the process's; Bull Board's pages of the account's queues
 * are `/queues/queue/NAME.QUEUE`.
 */
export function accountPath(path: string, account: string): string {
  const prefix = accountConsolePrefix(account);
  if (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`)) return path;
  if (path === '/metrics' || path.startsWith('/metrics?')) return path;
  if (path.startsWith('/queues/queue/'))
    return `/queues/queue/${account}.${path.slice('/queues/queue/'.length)}`;
  if (path === '/queues' || path.startsWith('/queues/') || path.startsWith('/queues?')) return path;
  return path === '/' ? `${prefix}/` : `${prefix}${path}`;
}

export function accountConsolePrefix(account: string): string {
  return `/accounts/${encodeURIComponent(account)}`;
}

/** Every root path in an attribute of the page (href, action, src, data-live, a form's back) given the account's prefix. */
export function withAccountPaths(page: string, account: string): string {
  return page
    .replace(
      /\b(href|action|src|data-live)="(\/(?![/\\])[^"]*)"/g,
      (_match, attribute: string, path: string) => `${attribute}="${accountPath(path, account)}"`,
    )
    .replace(
      /\bname="back"(\s+)value="(\/(?![/\\])[^"]*)"/g,
      (_match, space: string, path: string) => `name="back"${space}value="${accountPath(path, account)}"`,
    );
}

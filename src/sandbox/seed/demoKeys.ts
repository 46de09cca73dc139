/**
 * The stable demo API keys (like a payment provider's test keys): the same in every sandbox, so
 * README examples work. The prefix `cms_` is fixed; the rest is the secret part.
 */
export const DEMO_KEYS = {
  primary: 'cms_9c1f4e7a2b8d5063f1a7c4e92d6b8035a7e1c4f2',
  secondary: 'cms_2d7b9e4a1c6f8305e9b2a7d4c1f6e83b5a9d2c70',
  revoked: 'cms_7e3a1d9c5b2f8460a3e7c1d9b5f2a8643e1c7d95',
  no_user: 'cms_5b8e2a7d1f4c9360b7e2a5d8c1f4b9276d3a8e14',
} as const;

export type DemoKeys = { [K in keyof typeof DEMO_KEYS]: string };

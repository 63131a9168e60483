/**
 * A parsed JSON or YAML document (a response body, a webhook payload, a manifest) that a test reads
 * field by field and checks with `expect`: the assertions check its shape, so it is not typed.
 */
// biome-ignore lint/suspicious/noExplicitAny: the test's assertions are what check the document's shape
export type Json = any;

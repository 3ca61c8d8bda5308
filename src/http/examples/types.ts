/**
 * What the API reference shows for one operation: a request body and responses by status. The
 * way to give an operation examples is next to its route schema (`example()` and `errors()` in
 * src/http/schemas/common.ts); these files hold the examples of the operations that existed
 * before that, taken from one recorded run of the service (ids and times made readable) and kept
 * out of the route files so that those stay as they were. A route's own example wins over one
 * here. test/http/openapiExamples.test.ts checks every example against its schema.
 */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

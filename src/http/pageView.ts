/** One page of a list as the domain returns it (see `page` in src/domain/cursor.ts). */
export interface Page<T> {
  items: readonly T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The JSON of a page: its items under the list's own name, then `nextCursor` and `hasMore`. */
export type PageView<K extends string, V> = { [P in K]: V[] } & {
  nextCursor: string | null;
  hasMore: boolean;
};

/**
 * Every paged answer, REST and MCP alike, has this shape, in this key order (MCP answers are
 * serialized by `JSON.stringify`, which keeps the order they were built in). The view gets one
 * item only, never `map`'s index.
 */
export function pageView<T, K extends string, V>(
  result: Page<T>,
  key: K,
  view: (item: T) => V,
): PageView<K, V> {
  return {
    [key]: result.items.map((item) => view(item)),
    nextCursor: result.nextCursor,
    hasMore: result.hasMore,
  } as PageView<K, V>;
}

/** One page of a cursor-paginated list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** At most this many pages per walk: a guard against a cursor that never ends. */
const MAX_PAGES = 10_000;

/** Every item of a cursor-paginated list, fetching each page when the previous one is used up. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
  throw new Error(`pagination did not end after ${MAX_PAGES} pages`);
}

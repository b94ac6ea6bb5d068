/** The fields of a search result, which `include_fields` narrows an answer to. */
export const RESULT_FIELDS = [
  'id',
  'type',
  'name',
  'title',
  'description',
  'category',
  'score',
  'source',
  'preview',
  'path',
  'signed',
  'integrity',
  'date',
  'tokens',
  'bundle',
  'metadata',
  'shadows',
  'shadowed_by',
  'match',
  'highlights',
  'explain',
] as const;
export type ResultField = (typeof RESULT_FIELDS)[number];

/** Result fields read from the hit itself; every other field comes from the stored item. */
export const HIT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'score',
  'preview',
  'match',
  'highlights',
  'explain',
]);

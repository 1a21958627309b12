/** A status table (DECISIONS.md section 6): from each status, the statuses it may move to. */
export type Transitions<S extends string> = Record<S, readonly S[]>;

/** Whether the table has a move from `from` to `to`; staying in the same status is not one. */
export const hasMove = <S extends string>(table: Transitions<S>, from: S, to: S): boolean =>
  table[from].includes(to);

/** Staying in the same status is not a transition and is always allowed. */
export const canMove = <S extends string>(table: Transitions<S>, from: S, to: S): boolean =>
  from === to || hasMove(table, from, to);

/** The statuses that may move to `to`, in the table's order. */
export const movesInto = <S extends string>(table: Transitions<S>, to: S): S[] =>
  (Object.keys(table) as S[]).filter((from) => hasMove(table, from, to));

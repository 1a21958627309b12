/** A status table (DECISIONS.md section 6): from each status, the statuses it may move to. */
export type Transitions<S extends string> = Record<S, readonly S[]>;

/** Staying in the same status is not a transition and is always allowed. */
export const canMove = <S extends string>(table: Transitions<S>, from: S, to: S): boolean =>
  from === to || table[from].includes(to);

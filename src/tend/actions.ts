/** The link-integrity actions of `tend`. */
export const TEND_ACTIONS = ['check', 'mint', 'repair', 'robustify'] as const;
export type TendAction = (typeof TEND_ACTIONS)[number];

// React's automatic JSX runtime with every element's text shown as data (./shown.ts explains why).
import * as runtime from 'react/jsx-runtime'
import { shownProps } from './shown'

export type { JSX } from 'react/jsx-runtime'
export const Fragment = runtime.Fragment

export const jsx: typeof runtime.jsx = (type, props, ...rest) =>
  runtime.jsx(type, shownProps(type, props), ...rest)
export const jsxs: typeof runtime.jsxs = (type, props, ...rest) =>
  runtime.jsxs(type, shownProps(type, props), ...rest)

// React's development JSX runtime (the dev server's and the tests' builds) with every element's
// text shown as data, as in production (./shown.ts explains why).
import * as runtime from 'react/jsx-dev-runtime'
import { shownProps } from './shown'

export type { JSX } from 'react/jsx-dev-runtime'
export const Fragment = runtime.Fragment

export const jsxDEV: typeof runtime.jsxDEV = (type, props, ...rest) =>
  runtime.jsxDEV(type, shownProps(type, props), ...rest)

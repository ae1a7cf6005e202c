import { defineConfig } from 'vite'

// Built into dist/console by `npm run build` (and so by `npm ci`, through `prepare`). Asset URLs
// are relative: the service serves index.html with a <base> of wherever it is mounted.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline script or style: the Content-Security-Policy allows none.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false }
  }
})

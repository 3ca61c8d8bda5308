import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built by scripts/build-web.mjs into dist/web/miniapp and served by the API server at /app.
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: {
    target: 'es2020',
    // One chunk per library family keeps the app's own chunk small and cache-friendly.
    chunkSizeWarningLimit: 2000,
  },
});

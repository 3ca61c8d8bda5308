import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built by scripts/build-web.mjs into dist/web/console and served by the app at /console.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { target: 'es2022', chunkSizeWarningLimit: 2000 },
});

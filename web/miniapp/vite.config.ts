import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * TON Connect UI names its own button images by URL (raw.githubusercontent.com/ton-connect/...):
 * they are served by the service instead (src/http/routes/tonconnect.ts), so the page loads
 * nothing from elsewhere before a wallet is chosen.
 */
const tonConnectUiIcons = (): Plugin => ({
  name: 'handoff-tonconnect-ui-icons',
  transform(code) {
    const from = 'https://raw.githubusercontent.com/ton-connect/sdk/main/assets/';
    return code.includes(from) ? { code: code.replaceAll(from, '/tonconnect/ui-icons/'), map: null } : null;
  },
});

// Built by scripts/build-web.mjs into dist/web/miniapp and served by the API server at /app.
export default defineConfig({
  base: '/app/',
  plugins: [react(), tonConnectUiIcons()],
  build: {
    target: 'es2020',
    // One chunk per library family keeps the app's own chunk small and cache-friendly.
    chunkSizeWarningLimit: 2000,
  },
});

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The demo package ships TypeScript source.
  transpilePackages: ['@gatehouse/demo'],
  // Storage engines the demo loads only when GATEHOUSE_STORE selects them: left to Node at runtime.
  serverExternalPackages: ['@gatehouse/redis', '@gatehouse/postgres', 'ioredis', 'pg'],
  // Linting is Biome's job, at the repository root.
  eslint: { ignoreDuringBuilds: true },
  poweredByHeader: false,
  webpack(config) {
    // The demo's TypeScript source imports `./x.js` (ESM style) for `./x.ts`.
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] };
    return config;
  },
};

export default nextConfig;

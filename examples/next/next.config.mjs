const OPTIONAL_ENGINES = ['@gatehousejs/redis', '@gatehousejs/postgres'];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The demo package ships TypeScript source.
  transpilePackages: ['@gatehousejs/demo'],
  // Linting is Biome's job, at the repository root.
  eslint: { ignoreDuringBuilds: true },
  poweredByHeader: false,
  webpack(config, { isServer }) {
    // The demo's TypeScript source imports `./x.js` (ESM style) for `./x.ts`.
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] };
    if (isServer) {
      // Storage engines the demo imports only when GATEHOUSE_STORE selects them: not bundled, and
      // not even resolved at build time, so the example builds without them.
      config.externals = [
        ...[config.externals ?? []].flat(),
        ({ request }, callback) =>
          OPTIONAL_ENGINES.includes(request) ? callback(undefined, `import ${request}`) : callback(),
      ];
    }
    return config;
  },
};

export default nextConfig;

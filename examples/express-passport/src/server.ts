/**
 * `pnpm start`: the existing Express app with its own passport login, which is also an OAuth 2.0
 * authorization server at `{origin}/oauth`. `PORT` (default 3001) and `HOST` (default 127.0.0.1).
 */
import { createApp, SEED } from './app.js';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';
const { app, issuer } = await createApp({ origin: `http://localhost:${port}` });
app.listen(port, host, (error) => {
  // Express 5 hands a listen error (EADDRINUSE) to this callback instead of throwing it.
  if (error) {
    console.error(
      `cannot listen on ${host}:${port}: ${error.message}. Choose another port: PORT=3002 pnpm start`,
    );
    process.exit(1);
  }
  console.log(`An Express app with passport-local sign-in: http://localhost:${port}/login`);
  console.log(`  authorization server: ${issuer} (discovery ${issuer}/.well-known/openid-configuration)`);
  console.log(
    `  user ${SEED.user.email} / ${SEED.user.password}; client ${SEED.client.id} / ${SEED.client.secret}`,
  );
});

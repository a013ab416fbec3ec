/** A landing page pointing at the demo host's two instances. */
export default function Home() {
  return (
    <main>
      <h1>Gatehouse on Next.js</h1>
      <p>
        The demo instances live under <code>/demo</code> and <code>/acme</code>: see their metadata,{' '}
        <a href="/demo/.well-known/oauth-authorization-server">demo</a> and{' '}
        <a href="/acme/.well-known/oauth-authorization-server">acme</a>.
      </p>
    </main>
  );
}

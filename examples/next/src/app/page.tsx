/** A landing page pointing at the demo instance. */
export default function Home() {
  return (
    <main>
      <h1>Gatehouse on Next.js</h1>
      <p>
        The demo instance lives under <code>/demo</code>: see its{' '}
        <a href="/demo/.well-known/oauth-authorization-server">metadata</a>.
      </p>
    </main>
  );
}

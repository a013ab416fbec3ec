// The `koa2` npm alias (Koa 2, for tests) shares Koa 3's public API as far as the adapter uses it.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}

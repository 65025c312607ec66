/** Wasm module bindings of edge runtimes: importing a `.wasm` module yields a compiled module. */
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}

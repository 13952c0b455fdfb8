/**
 * @module
 * Loads the QuickJS-NG WebAssembly module once per process; every VM is a runtime inside it.
 */
import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import variantExport from "@jitl/quickjs-ng-wasmfile-release-sync";

// The package's one declaration file is typed as CommonJS; the ESM entry Node loads has the variant as default.
const variant = variantExport as unknown as QuickJSSyncVariant;

let loading: Promise<QuickJSWASMModule> | undefined;

/** The shared QuickJS-NG module (loaded on first use). */
export function loadQuickJsModule(): Promise<QuickJSWASMModule> {
  loading ??= newQuickJSWASMModuleFromVariant(variant);
  return loading;
}

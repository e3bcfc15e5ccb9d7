//! OneShader facade.

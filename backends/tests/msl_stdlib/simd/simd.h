// A stand-in for <simd/simd.h>, which spirv-cross's MSL includes after <metal_stdlib>: Apple's
// header declares the simd:: vector library shared by Metal and the CPU. Nothing here: MSL
// code uses the metal:: types, and text naming simd:: should fail to compile.
#pragma once

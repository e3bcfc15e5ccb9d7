// Stage-specific parameter syntax: geometry, hull, domain, mesh shaders.
struct VSOut { float4 pos : SV_Position; nointerpolation uint id : ID; linear centroid float2 uv : UV; noperspective float z : Z; sample float w : W; };
struct PatchConst { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };

[maxvertexcount(3)]
void gs(triangle VSOut input[3], inout TriangleStream<VSOut> stream, uint prim : SV_PrimitiveID) {
  for (uint i = 0; i < 3; i++) stream.Append(input[i]);
  stream.RestartStrip();
}

PatchConst pcf(InputPatch<VSOut, 3> patch) { PatchConst pc = (PatchConst)0; return pc; }

[domain("tri")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("pcf")]
VSOut hs(InputPatch<VSOut, 3> patch, uint cp : SV_OutputControlPointID) { return patch[cp]; }

[domain("tri")]
VSOut ds(PatchConst pc, float3 bary : SV_DomainLocation, const OutputPatch<VSOut, 3> patch) { return patch[0]; }

[outputtopology("triangle")]
[numthreads(32, 1, 1)]
void ms(in uint tid : SV_GroupThreadID, out vertices VSOut verts[3], out indices uint3 tris[1]) {
  SetMeshOutputCounts(3, 1);
  tris[0] = uint3(0, 1, 2);
}

[shader("vertex")]
VSOut vs([[vk::location(0)]] float4 pos : POSITION, precise float4 extra : EXTRA) {
  VSOut o = (VSOut)0;
  o.pos = pos;
  return o;
}

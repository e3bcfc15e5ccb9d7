// Every statement form, with statement attributes.
RWStructuredBuffer<uint> buf;

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
  uint acc = 0, i;
  const float k = 1.5f;
  {
    struct Local { int x; };
    Local l;
    l.x = 1;
  }
  if (id.x == 0) acc = 1;
  else if (id.x == 1) { acc = 2; }
  else acc = 3;
  [branch] if (int d = (int)gi) acc += d;
  [unroll(4)] for (i = 0; i < 4; ++i) acc += i;
  [loop] for (uint j = 0, n = 2; j < n; j++) { if (j == 1) continue; acc ^= j; }
  for (;;) { break; }
  [fastopt] while (acc > 100) acc >>= 1;
  do { acc--; } while (acc > 50);
  [flatten] switch (acc) {
    case 0:
    case 1:
      acc = 7;
      break;
    case 2: {
      acc = 8;
      break;
    }
    default:
      acc = 9;
  }
  ;
  if (acc == 1234) return;
  buf[id.x] = acc;
}

float4 ps(float4 pos : SV_Position) : SV_Target {
  if (pos.x < 0) discard;
  return pos;
}

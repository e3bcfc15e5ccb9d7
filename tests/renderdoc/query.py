# Opens a RenderDoc capture of one compute dispatch and prints, as JSON, what a user stepping
# through its shader would see: the shader's source files (name and length of the text) and,
# for the invocation (0,0,0), each (file, line, call stack) the debugger stops at.
# Run with Debian's /usr/bin/python3, whose dist-packages hold python3-renderdoc's module.
import json
import sys

sys.path.insert(0, "/usr/lib/python3/dist-packages")
import renderdoc as rd


def actions(roots):
    for a in roots:
        yield a
        yield from actions(a.children)


def main(path):
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    cap = rd.OpenCaptureFile()
    result = cap.OpenFile(path, "", None)
    if result != rd.ResultCode.Succeeded:
        raise SystemExit(f"cannot open {path}: {result}")
    status, ctrl = cap.OpenCapture(rd.ReplayOptions(), None)
    if status != rd.ResultCode.Succeeded:
        raise SystemExit(f"cannot replay {path}: {status}")
    dispatches = [a for a in actions(ctrl.GetRootActions()) if a.flags & rd.ActionFlags.Dispatch]
    if not dispatches:
        raise SystemExit("the capture holds no dispatch")
    ctrl.SetFrameEvent(dispatches[0].eventId, True)
    refl = ctrl.GetPipelineState().GetShaderReflection(rd.ShaderStage.Compute)
    info = refl.debugInfo
    out = {
        "files": [[f.filename, len(f.contents)] for f in info.files],
        "debuggable": bool(info.debuggable),
        "stops": [],
    }
    trace = ctrl.DebugThread((0, 0, 0), (0, 0, 0))
    if trace is not None and trace.debugger is not None:
        lines = {i.instruction: i.lineInfo for i in trace.instInfo}
        while True:
            states = ctrl.ContinueDebug(trace.debugger)
            if not states:
                break
            for s in states:
                li = lines.get(s.nextInstruction)
                if li is not None and li.fileIndex >= 0:
                    stop = [li.fileIndex, li.lineStart, list(s.callstack)]
                    if stop not in out["stops"]:
                        out["stops"].append(stop)
        ctrl.FreeTrace(trace)
    ctrl.Shutdown()
    cap.Shutdown()
    rd.ShutdownReplay()
    print(json.dumps(out))


main(sys.argv[1])

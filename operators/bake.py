"""Bake and Clear. In the UI the bake is modal (progress, Esc cancels); scripts run it through."""

import time
import traceback

import bpy

from ..blender_addon.baking import kernels
from ..blender_addon.baking.job import BakeError, BakeJob, BakeReport, bake_scene, clear_bake

# Time spent simulating per timer event: long enough to be efficient, short enough for Esc.
_SLICE_SECONDS = 0.05
# View navigation changes no data, so it may pass while the bake runs; every other event waits.
_NAVIGATION = frozenset(
    {"MIDDLEMOUSE", "WHEELUPMOUSE", "WHEELDOWNMOUSE", "TRACKPADPAN", "TRACKPADZOOM", "NDOF_MOTION"}
)


def _report_done(operator, report: BakeReport) -> None:
    for warning in report.warnings:
        operator.report({"WARNING"}, warning)
    seconds = report.timings.get("compile")
    ready = f" ({kernels.summary(seconds)})" if seconds else ""
    operator.report(
        {"INFO"},
        f"Baked {report.bodies} bodies over {report.frames} frames in {report.seconds:.2f} s"
        f"{ready}",
    )


def _report_failure(operator, error: Exception) -> None:
    """An unexpected error: the traceback goes to the console, the user gets one line."""
    traceback.print_exc()
    operator.report(
        {"ERROR"},
        f"Bake failed ({type(error).__name__}: {error}); the scene is as it was before",
    )


class IMPULSE_OT_bake(bpy.types.Operator):
    """Simulate the bodies over the frame range and key the active ones"""

    bl_idname = "impulse.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    def execute(self, context):
        try:
            report = bake_scene(context.scene)
        except BakeError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        except Exception as error:  # a bug: say so; the scene is as it was
            _report_failure(self, error)
            return {"CANCELLED"}
        _report_done(self, report)
        return {"FINISHED"}

    def invoke(self, context, _event):
        if bpy.app.background or context.window is None:
            return self.execute(context)
        try:
            self._job = BakeJob(context.scene, context.evaluated_depsgraph_get())
        except BakeError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        manager = context.window_manager
        self._timer = manager.event_timer_add(0.001, window=context.window)
        manager.progress_begin(0, max(self._job.total_frames, 1))
        shapes = self._job.world.other_shapes
        if not kernels.ready(shapes) and kernels.first_use(shapes):  # while the first step compiles
            context.workspace.status_text_set(f"Impulse: {kernels.FIRST_USE}")
        manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self._job.cancel()
            self._end(context)
            self.report({"INFO"}, "Bake cancelled; nothing was changed")
            return {"CANCELLED"}
        if event.type in _NAVIGATION:
            return {"PASS_THROUGH"}
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}  # no edits while the world is half simulated
        deadline = time.perf_counter() + _SLICE_SECONDS
        running = True
        while running and time.perf_counter() < deadline:
            running = self._job.step()
        if running:
            done, total = self._job.done_frames, self._job.total_frames
            context.window_manager.progress_update(done)
            status = f"Impulse: baking frame {done} of {total} (Esc cancels)"
            context.workspace.status_text_set(status)
            return {"RUNNING_MODAL"}
        try:
            report = self._job.finish()
        except Exception as error:  # a bug: say so; the scene is as it was
            self._end(context)
            _report_failure(self, error)
            return {"CANCELLED"}
        self._end(context)
        _report_done(self, report)
        return {"FINISHED"}

    def _end(self, context) -> None:
        manager = context.window_manager
        manager.event_timer_remove(self._timer)
        manager.progress_end()
        context.workspace.status_text_set(None)


class IMPULSE_OT_clear_bake(bpy.types.Operator):
    """Remove baked keys and restore each object's previous animation and transform"""

    bl_idname = "impulse.clear_bake"
    bl_label = "Clear Bake"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    def execute(self, context):
        cleared = clear_bake(context.scene)
        if not cleared:
            self.report({"WARNING"}, "Nothing baked to clear")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Cleared the bake of {cleared} objects")
        return {"FINISHED"}


CLASSES = (IMPULSE_OT_bake, IMPULSE_OT_clear_bake)

"""Compare with the built-in rigid body world, remove its ghosts, and run the verification."""

import tempfile
from pathlib import Path

import bpy

from ..blender_addon.reading.bridge import BakeError
from ..blender_addon.verification import compare, verify


class IMPULSE_OT_compare_builtin(bpy.types.Operator):
    """Simulate the bodies with Impulse and with Blender's built-in rigid body world (on a
    temporary copy of the scene) and report where they differ"""

    bl_idname = "impulse.compare_builtin"
    bl_label = "Compare with Built-in"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    def execute(self, context):
        settings = context.scene.impulse_report
        try:
            result = compare.compare_scene(context.scene, context.evaluated_depsgraph_get(),
                                           blender_damping=settings.blender_damping)
        except (BakeError, RuntimeError) as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        compare.write_text(result)
        compare.write_report_curves(context.scene, result)
        if settings.use_ghosts:
            compare.add_ghosts(context.scene, result)
        settings.last_compare = result.summary()
        for note in result.notes:
            if note.startswith("Warning"):
                self.report({"WARNING"}, note)
        folder = _output_dir(settings.output_dir)
        label = bpy.path.basename(bpy.data.filepath) or "unsaved file"
        stem = bpy.path.clean_name(f"{Path(label).stem}_{context.scene.name}")
        try:
            compare.write_files(result, folder, stem)
            settings.last_report = str(compare.write_report([(label, result, stem)], folder))
        except (OSError, RuntimeError) as error:  # not writable, or the chart cannot be drawn
            self.report({"WARNING"}, f"Could not write the report files to {folder}: {error}")
        self.report({"INFO"}, f"{result.summary()}; table in the Text '{compare.TEXT_NAME}', "
                              f"curves on '{compare.REPORT_NAME}', report.html in {folder}")
        return {"FINISHED"}


class IMPULSE_OT_remove_ghosts(bpy.types.Operator):
    """Remove the wireframe ghosts of the built-in world's trajectories"""

    bl_idname = "impulse.remove_ghosts"
    bl_label = "Remove Ghosts"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    @classmethod
    def poll(cls, _context):
        return compare.GHOSTS_NAME in bpy.data.collections

    def execute(self, _context):
        count = compare.remove_ghosts()
        self.report({"INFO"}, f"Removed {count} ghost(s)")
        return {"FINISHED"}


def _output_dir(path: str) -> Path:
    """The panel's folder; a relative '//' path in an unsaved file goes to the temp folder."""
    if path.startswith("//") and not bpy.data.filepath:
        return Path(tempfile.gettempdir()) / path[2:]
    return Path(bpy.path.abspath(path))


class IMPULSE_OT_verify(bpy.types.Operator):
    """Run the textbook scenes (bounces, sliding, inclines, stack, collisions, cradle, tumbling)
    through Impulse and the built-in world and compare both with the closed forms"""

    bl_idname = "impulse.verify"
    bl_label = "Verify Physics"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (read once, at registration)

    only: bpy.props.StringProperty(
        name="Only", description="Run only the scenes whose name contains this text",
        options={"SKIP_SAVE"})

    def execute(self, context):
        settings = context.scene.impulse_report
        scenes = verify.canonical_scenes(self.only)
        if not scenes:
            self.report({"ERROR"}, f"No verification scene matches '{self.only}'")
            return {"CANCELLED"}
        manager = context.window_manager
        manager.progress_begin(0, len(scenes))
        done = []

        def progress(line: str) -> None:
            done.append(line)
            manager.progress_update(len(done))

        try:
            result = verify.verify(scenes, progress)
        except RuntimeError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        finally:
            manager.progress_end()
        verify.write_blender_outputs(result, context.scene)
        folder = _output_dir(settings.output_dir)
        try:
            files = verify.write_outputs(result, folder)
        except (OSError, RuntimeError) as error:  # not writable, or the charts cannot be drawn
            self.report({"WARNING"}, f"Could not write the report files to {folder}: {error}")
        else:
            settings.last_report = str(files[-1])
        settings.last_verify = result.summary()
        for failure in result.failures:
            self.report({"ERROR"}, failure)
        self.report({"INFO"}, f"{result.summary()}; table in the Text '{verify.TEXT_NAME}', "
                              f"report.html and files in {folder}")
        return {"FINISHED"} if not result.failures else {"CANCELLED"}


CLASSES = (IMPULSE_OT_compare_builtin, IMPULSE_OT_remove_ghosts, IMPULSE_OT_verify)

import bpy

obj = bpy.context.object

# Natural rubber: density 0.92-1.2 g/cm³, rebound ~0.8, friction on dry surfaces 0.6-1.0.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 1100.0
obj.impulse.restitution = 0.8
obj.impulse.friction = 0.9

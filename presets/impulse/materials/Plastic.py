import bpy

obj = bpy.context.object

# Polyethylene / ABS: density 0.95-1.05 g/cm³, restitution ~0.6, friction 0.2-0.4.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 950.0
obj.impulse.restitution = 0.6
obj.impulse.friction = 0.35

import bpy

obj = bpy.context.object

# Ice near 0 °C: density 0.917 g/cm³, restitution ~0.3, ice on ice friction 0.02-0.05.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 917.0
obj.impulse.restitution = 0.3
obj.impulse.friction = 0.03

"""Reading the scene into solver bodies: mesh points, fitted shapes, the world a bake runs."""

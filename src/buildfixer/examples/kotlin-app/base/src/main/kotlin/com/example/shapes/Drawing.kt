package com.example.shapes

/** A collection of shapes with summary statistics. */
class Drawing(private val shapes: List<Shape>) {
    fun totalArea(): Double = shapes.sumOf { it.area() }

    fun largest(): Shape? = shapes.maxByOrNull { it.area() }

    fun describe(shape: Shape): String = when (shape) {
        is Circle -> "circle r=${shape.radius}"
        is Rectangle -> "rectangle ${shape.width}x${shape.height}"
    }

    fun summary(): String = shapes.joinToString(separator = "; ") { describe(it) }
}

fun main() {
    val drawing = Drawing(listOf(Circle(1.0), Rectangle(2.0, 3.0)))
    println(drawing.summary())
    println("total area: %.2f".format(drawing.totalArea()))
}

package com.example.shapes

import kotlin.math.PI

/** A closed plane figure with an area and a perimeter. */
sealed class Shape {
    abstract fun area(): Double
    abstract fun perimeter(): Double
}

data class Circle(val radius: Double) : Shape() {
    override fun area(): Double = PI * radius * radius
    override fun perimeter(): Double = 2 * PI * radius
}

data class Rectangle(val width: Double, val height: Double) : Shape() {
    override fun area(): Double = width * height
    override fun perimeter(): Double = 2 * (width + height)
}

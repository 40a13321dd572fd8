# Packages of the console (app/, ui/). Only read when MEDSYNTH_BUILD_CONSOLE is
# on, so the engine still builds on a headless node without Qt or VTK.
set(CMAKE_AUTOMOC ON)
set(CMAKE_AUTORCC ON)
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Concurrent Gui Widgets Charts OpenGL OpenGLWidgets Test)

# Debian's VTK 9.1 names Qt5 in its Qt module: list the components we use
# explicitly (a bare find_package(VTK) asks for Qt5). VTK::mpi's link interface
# needs MPI's C component found first (PLATFORM-NOTES.md).
find_package(MPI COMPONENTS C QUIET)
find_package(VTK 9.1 REQUIRED COMPONENTS
  CommonCore CommonDataModel CommonExecutionModel CommonColor
  RenderingCore RenderingOpenGL2 RenderingVolume RenderingVolumeOpenGL2
  RenderingImage RenderingAnnotation RenderingFreeType
  InteractionStyle InteractionWidgets InteractionImage
  ImagingCore ImagingColor ImagingMath ImagingStatistics IOImage)
message(STATUS "Qt ${Qt6_VERSION}, VTK ${VTK_VERSION}")

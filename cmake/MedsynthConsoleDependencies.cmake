# Packages of the console (app/, ui/). Only read when MEDSYNTH_BUILD_CONSOLE is
# on, so the engine still builds on a headless node without Qt or VTK.
# CMAKE_AUTOMOC/AUTORCC are switched on in app/, ui/ and their test folders
# only: set here they would add an autogen include folder to every engine
# target, and the engine's compile lines would differ between the full and
# the engine-only build (ccache could not share them; installer/test.sh builds both).
# Svg: the run monitor exports charts as SVG (QSvgGenerator; Debian qt6-svg-dev).
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Concurrent Gui Widgets Charts OpenGL OpenGLWidgets Svg Test)

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
